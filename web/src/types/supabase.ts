export type Json =
  | string
  | number
  | boolean
  | null
  | { [key: string]: Json | undefined }
  | Json[]

export type Database = {
  public: {
    Tables: {
      airport_bookings: {
        Row: {
          booking_status: string
          created_at: string
          customer_email: string | null
          customer_name: string | null
          customer_phone: string | null
          flight_date: string
          flight_number: string
          flight_time: string
          flight_type: string
          id: string
          passengers: number
          service_type: string
          special_requests: string | null
          total_amount: number
          updated_at: string
          user_id: string | null
        }
        Insert: {
          booking_status?: string
          created_at?: string
          customer_email?: string | null
          customer_name?: string | null
          customer_phone?: string | null
          flight_date: string
          flight_number: string
          flight_time: string
          flight_type?: string
          id?: string
          passengers?: number
          service_type: string
          special_requests?: string | null
          total_amount?: number
          updated_at?: string
          user_id?: string | null
        }
        Update: {
          booking_status?: string
          created_at?: string
          customer_email?: string | null
          customer_name?: string | null
          customer_phone?: string | null
          flight_date?: string
          flight_number?: string
          flight_time?: string
          flight_type?: string
          id?: string
          passengers?: number
          service_type?: string
          special_requests?: string | null
          total_amount?: number
          updated_at?: string
          user_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "airport_bookings_profile_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "airport_bookings_service_type_fkey"
            columns: ["service_type"]
            isOneToOne: false
            referencedRelation: "airport_services"
            referencedColumns: ["code"]
          },
        ]
      }
      airport_services: {
        Row: {
          code: string
          description: string
          name: string
          position: number
          price: number
        }
        Insert: {
          code: string
          description: string
          name: string
          position: number
          price: number
        }
        Update: {
          code?: string
          description?: string
          name?: string
          position?: number
          price?: number
        }
        Relationships: []
      }
      app_settings: {
        Row: {
          section: string
          updated_at: string
          updated_by: string | null
          value: Json
        }
        Insert: {
          section: string
          updated_at?: string
          updated_by?: string | null
          value: Json
        }
        Update: {
          section?: string
          updated_at?: string
          updated_by?: string | null
          value?: Json
        }
        Relationships: []
      }
      blog_posts: {
        Row: {
          author: string
          category: string | null
          content: string
          cover_image: string | null
          created_at: string
          excerpt: string
          id: string
          published: boolean
          published_at: string | null
          slug: string
          title: string
          updated_at: string
        }
        Insert: {
          author: string
          category?: string | null
          content: string
          cover_image?: string | null
          created_at?: string
          excerpt: string
          id?: string
          published?: boolean
          published_at?: string | null
          slug: string
          title: string
          updated_at?: string
        }
        Update: {
          author?: string
          category?: string | null
          content?: string
          cover_image?: string | null
          created_at?: string
          excerpt?: string
          id?: string
          published?: boolean
          published_at?: string | null
          slug?: string
          title?: string
          updated_at?: string
        }
        Relationships: []
      }
      bookings: {
        Row: {
          booking_status: string
          created_at: string
          customer_email: string | null
          customer_name: string | null
          customer_phone: string | null
          driver_license_number: string | null
          dropoff_location: string | null
          end_date: string
          id: string
          mobile_money_phone: string | null
          mobile_money_provider: string | null
          passengers: number | null
          payment_method: string | null
          payment_reference: string | null
          pickup_location: string | null
          pickup_time: string | null
          special_requests: string | null
          start_date: string
          total_amount: number
          updated_at: string
          user_id: string | null
          vehicle_id: string
        }
        Insert: {
          booking_status?: string
          created_at?: string
          customer_email?: string | null
          customer_name?: string | null
          customer_phone?: string | null
          driver_license_number?: string | null
          dropoff_location?: string | null
          end_date: string
          id?: string
          mobile_money_phone?: string | null
          mobile_money_provider?: string | null
          passengers?: number | null
          payment_method?: string | null
          payment_reference?: string | null
          pickup_location?: string | null
          pickup_time?: string | null
          special_requests?: string | null
          start_date: string
          total_amount?: number
          updated_at?: string
          user_id?: string | null
          vehicle_id: string
        }
        Update: {
          booking_status?: string
          created_at?: string
          customer_email?: string | null
          customer_name?: string | null
          customer_phone?: string | null
          driver_license_number?: string | null
          dropoff_location?: string | null
          end_date?: string
          id?: string
          mobile_money_phone?: string | null
          mobile_money_provider?: string | null
          passengers?: number | null
          payment_method?: string | null
          payment_reference?: string | null
          pickup_location?: string | null
          pickup_time?: string | null
          special_requests?: string | null
          start_date?: string
          total_amount?: number
          updated_at?: string
          user_id?: string | null
          vehicle_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "bookings_profile_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "bookings_vehicle_id_fkey"
            columns: ["vehicle_id"]
            isOneToOne: false
            referencedRelation: "vehicles"
            referencedColumns: ["id"]
          },
        ]
      }
      contact_messages: {
        Row: {
          archived_at: string | null
          created_at: string
          email: string
          handled: boolean
          id: string
          message: string
          name: string
          phone: string | null
          read_at: string | null
          replied_at: string | null
          replied_by: string | null
          reply: string | null
          source: string
          subject: string
          user_id: string | null
        }
        Insert: {
          archived_at?: string | null
          created_at?: string
          email: string
          handled?: boolean
          id?: string
          message: string
          name: string
          phone?: string | null
          read_at?: string | null
          replied_at?: string | null
          replied_by?: string | null
          reply?: string | null
          source?: string
          subject: string
          user_id?: string | null
        }
        Update: {
          archived_at?: string | null
          created_at?: string
          email?: string
          handled?: boolean
          id?: string
          message?: string
          name?: string
          phone?: string | null
          read_at?: string | null
          replied_at?: string | null
          replied_by?: string | null
          reply?: string | null
          source?: string
          subject?: string
          user_id?: string | null
        }
        Relationships: []
      }
      diagnostic_bookings: {
        Row: {
          appointment_date: string
          appointment_time: string
          booking_status: string
          created_at: string
          customer_email: string
          customer_name: string | null
          customer_phone: string
          id: string
          notes: string | null
          service_name: string | null
          service_price: number | null
          service_type: string
          total_amount: number
          updated_at: string
          user_id: string | null
          vehicle_type: string
        }
        Insert: {
          appointment_date: string
          appointment_time: string
          booking_status?: string
          created_at?: string
          customer_email: string
          customer_name?: string | null
          customer_phone: string
          id?: string
          notes?: string | null
          service_name?: string | null
          service_price?: number | null
          service_type: string
          total_amount?: number
          updated_at?: string
          user_id?: string | null
          vehicle_type: string
        }
        Update: {
          appointment_date?: string
          appointment_time?: string
          booking_status?: string
          created_at?: string
          customer_email?: string
          customer_name?: string | null
          customer_phone?: string
          id?: string
          notes?: string | null
          service_name?: string | null
          service_price?: number | null
          service_type?: string
          total_amount?: number
          updated_at?: string
          user_id?: string | null
          vehicle_type?: string
        }
        Relationships: [
          {
            foreignKeyName: "diagnostic_bookings_profile_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "diagnostic_bookings_service_type_fkey"
            columns: ["service_type"]
            isOneToOne: false
            referencedRelation: "diagnostic_services"
            referencedColumns: ["code"]
          },
        ]
      }
      diagnostic_services: {
        Row: {
          code: string
          description: string
          name: string
          position: number
          price: number
        }
        Insert: {
          code: string
          description: string
          name: string
          position: number
          price: number
        }
        Update: {
          code?: string
          description?: string
          name?: string
          position?: number
          price?: number
        }
        Relationships: []
      }
      premium_service_bookings: {
        Row: {
          booking_status: string
          created_at: string
          customer_email: string
          customer_name: string
          customer_phone: string
          duration_days: number
          id: string
          service_name: string | null
          service_price_per_day: number | null
          service_type: string
          special_requirements: string | null
          start_date: string
          total_amount: number
          updated_at: string
          user_id: string | null
        }
        Insert: {
          booking_status?: string
          created_at?: string
          customer_email: string
          customer_name: string
          customer_phone: string
          duration_days: number
          id?: string
          service_name?: string | null
          service_price_per_day?: number | null
          service_type: string
          special_requirements?: string | null
          start_date: string
          total_amount?: number
          updated_at?: string
          user_id?: string | null
        }
        Update: {
          booking_status?: string
          created_at?: string
          customer_email?: string
          customer_name?: string
          customer_phone?: string
          duration_days?: number
          id?: string
          service_name?: string | null
          service_price_per_day?: number | null
          service_type?: string
          special_requirements?: string | null
          start_date?: string
          total_amount?: number
          updated_at?: string
          user_id?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "premium_service_bookings_profile_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["user_id"]
          },
          {
            foreignKeyName: "premium_service_bookings_service_type_fkey"
            columns: ["service_type"]
            isOneToOne: false
            referencedRelation: "premium_services"
            referencedColumns: ["code"]
          },
        ]
      }
      premium_services: {
        Row: {
          code: string
          description: string
          name: string
          position: number
          price_per_day: number
        }
        Insert: {
          code: string
          description: string
          name: string
          position: number
          price_per_day: number
        }
        Update: {
          code?: string
          description?: string
          name?: string
          position?: number
          price_per_day?: number
        }
        Relationships: []
      }
      profiles: {
        Row: {
          created_at: string
          email: string | null
          full_name: string | null
          id: string
          notify_email: boolean
          notify_sms: boolean
          phone: string | null
          role: string
          updated_at: string
          user_id: string
          username: string | null
        }
        Insert: {
          created_at?: string
          email?: string | null
          full_name?: string | null
          id?: string
          notify_email?: boolean
          notify_sms?: boolean
          phone?: string | null
          role?: string
          updated_at?: string
          user_id: string
          username?: string | null
        }
        Update: {
          created_at?: string
          email?: string | null
          full_name?: string | null
          id?: string
          notify_email?: boolean
          notify_sms?: boolean
          phone?: string | null
          role?: string
          updated_at?: string
          user_id?: string
          username?: string | null
        }
        Relationships: []
      }
      vehicle_records: {
        Row: {
          insurance_policy: string | null
          last_service_date: string | null
          next_service_due: string | null
          registration_expiry: string | null
          updated_at: string
          vehicle_id: string
          vin: string | null
        }
        Insert: {
          insurance_policy?: string | null
          last_service_date?: string | null
          next_service_due?: string | null
          registration_expiry?: string | null
          updated_at?: string
          vehicle_id: string
          vin?: string | null
        }
        Update: {
          insurance_policy?: string | null
          last_service_date?: string | null
          next_service_due?: string | null
          registration_expiry?: string | null
          updated_at?: string
          vehicle_id?: string
          vin?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "vehicle_records_vehicle_id_fkey"
            columns: ["vehicle_id"]
            isOneToOne: true
            referencedRelation: "vehicles"
            referencedColumns: ["id"]
          },
        ]
      }
      vehicles: {
        Row: {
          category: string
          color: string | null
          created_at: string
          current_location: string | null
          daily_rate: number
          description: string | null
          features: string[]
          home_location: string | null
          id: string
          images: Json
          license_plate: string | null
          location: string | null
          make: string
          model: string
          name: string
          price: number
          pricing: Json
          primary_image: string | null
          rental_status: string
          specifications: Json
          updated_at: string
          year: number
        }
        Insert: {
          category?: string
          color?: string | null
          created_at?: string
          current_location?: string | null
          daily_rate?: number
          description?: string | null
          features?: string[]
          home_location?: string | null
          id?: string
          images?: Json
          license_plate?: string | null
          location?: string | null
          make: string
          model: string
          name: string
          price?: number
          pricing?: Json
          primary_image?: string | null
          rental_status?: string
          specifications?: Json
          updated_at?: string
          year: number
        }
        Update: {
          category?: string
          color?: string | null
          created_at?: string
          current_location?: string | null
          daily_rate?: number
          description?: string | null
          features?: string[]
          home_location?: string | null
          id?: string
          images?: Json
          license_plate?: string | null
          location?: string | null
          make?: string
          model?: string
          name?: string
          price?: number
          pricing?: Json
          primary_image?: string | null
          rental_status?: string
          specifications?: Json
          updated_at?: string
          year?: number
        }
        Relationships: []
      }
    }
    Views: {
      all_bookings: {
        Row: {
          booking_status: string | null
          created_at: string | null
          id: string | null
          kind: string | null
          total_amount: number | null
          user_id: string | null
          vehicle_id: string | null
        }
        Relationships: []
      }
    }
    Functions: {
      admin_analytics: {
        Args: { end_date: string; start_date: string }
        Returns: Json
      }
      admin_delete_users: { Args: { ids: string[] }; Returns: number }
      admin_reply_message: {
        Args: { body: string; message_id: string }
        Returns: {
          archived_at: string | null
          created_at: string
          email: string
          handled: boolean
          id: string
          message: string
          name: string
          phone: string | null
          read_at: string | null
          replied_at: string | null
          replied_by: string | null
          reply: string | null
          source: string
          subject: string
          user_id: string | null
        }
        SetofOptions: {
          from: "*"
          to: "contact_messages"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      admin_save_vehicle: {
        Args: { record?: Json; vehicle: Json; vehicle_id?: string }
        Returns: string
      }
      admin_statistics: { Args: { period_days?: number }; Returns: Json }
      admin_users: {
        Args: never
        Returns: {
          booking_count: number
          created_at: string
          email: string
          full_name: string
          id: string
          is_active: boolean
          last_booking: string
          phone: string
          role: string
          total_spent: number
          updated_at: string
          user_id: string
          username: string
        }[]
      }
      before_user_created: { Args: { event: Json }; Returns: Json }
      book_vehicle: {
        Args: {
          customer_email?: string
          customer_name?: string
          customer_phone?: string
          driver_license_number?: string
          dropoff_location?: string
          end_date: string
          mobile_money_phone?: string
          mobile_money_provider?: string
          passengers?: number
          payment_method?: string
          payment_reference?: string
          pickup_location?: string
          pickup_time?: string
          special_requests?: string
          start_date: string
          vehicle_id: string
        }
        Returns: {
          booking_status: string
          days: number
          discount_percent: number
          id: string
          total_amount: number
        }[]
      }
      booking_contact: { Args: { b: Json }; Returns: Record<string, unknown> }
      booking_description: {
        Args: { b: Json; kind: string }
        Returns: Record<string, unknown>
      }
      booking_event_words: {
        Args: { event: string }
        Returns: Record<string, unknown>
      }
      booking_first_day: { Args: { b: Json; kind: string }; Returns: string }
      booking_hold: { Args: never; Returns: string }
      booking_next_statuses: { Args: { status: string }; Returns: string[] }
      booking_rules_apply: { Args: never; Returns: boolean }
      booking_status_label: { Args: { status: string }; Returns: string }
      enqueue_booking_reminders: { Args: never; Returns: number }
      format_day: { Args: { d: string }; Returns: string }
      format_money: {
        Args: { amount: number; currency?: string }
        Returns: string
      }
      is_admin: { Args: never; Returns: boolean }
      is_permanent_user: { Args: never; Returns: boolean }
      lock_booking_vehicles: {
        Args: { a: string; b?: string }
        Returns: undefined
      }
      quote_vehicle_rental: {
        Args: { end_date: string; start_date: string; vehicle_id: string }
        Returns: {
          base_total: number
          daily_rate: number
          days: number
          discount_percent: number
          total: number
        }[]
      }
      rental_days: {
        Args: { end_date: string; start_date: string }
        Returns: number
      }
      rental_duration_limits: { Args: never; Returns: Record<string, unknown> }
      search_available_vehicles: {
        Args: {
          category?: string
          end_date: string
          fuel_type?: string
          max_daily_rate?: number
          min_seats?: number
          start_date: string
          transmission?: string
        }
        Returns: {
          base_total: number
          category: string
          color: string
          daily_rate: number
          days: number
          description: string
          discount_percent: number
          features: string[]
          id: string
          images: Json
          location: string
          make: string
          model: string
          name: string
          pricing: Json
          primary_image: string
          rental_status: string
          specifications: Json
          total: number
          year: number
        }[]
      }
      send_booking_messages: {
        Args: { b: Json; event: string; kind: string }
        Returns: undefined
      }
      setting: { Args: { key: string; section: string }; Returns: Json }
      settings_number_in: {
        Args: { hi: number; key: string; lo: number; v: Json; whole: boolean }
        Returns: boolean
      }
      site_settings: { Args: never; Returns: Json }
      vehicle_daily_rate: {
        Args: { v: Database["public"]["Tables"]["vehicles"]["Row"] }
        Returns: number
      }
      vehicle_taken_dates: {
        Args: { days?: number; from_date?: string; vehicle_id: string }
        Returns: {
          end_date: string
          start_date: string
          status: string
        }[]
      }
    }
    Enums: {
      [_ in never]: never
    }
    CompositeTypes: {
      [_ in never]: never
    }
  }
}

type DatabaseWithoutInternals = Omit<Database, "__InternalSupabase">

type DefaultSchema = DatabaseWithoutInternals[Extract<keyof Database, "public">]

export type Tables<
  DefaultSchemaTableNameOrOptions extends
    | keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
        DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])
    : never = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
      DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])[TableName] extends {
      Row: infer R
    }
    ? R
    : never
  : DefaultSchemaTableNameOrOptions extends keyof (DefaultSchema["Tables"] &
        DefaultSchema["Views"])
    ? (DefaultSchema["Tables"] &
        DefaultSchema["Views"])[DefaultSchemaTableNameOrOptions] extends {
        Row: infer R
      }
      ? R
      : never
    : never

export type TablesInsert<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Insert: infer I
    }
    ? I
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Insert: infer I
      }
      ? I
      : never
    : never

export type TablesUpdate<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Update: infer U
    }
    ? U
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Update: infer U
      }
      ? U
      : never
    : never

export type Enums<
  DefaultSchemaEnumNameOrOptions extends
    | keyof DefaultSchema["Enums"]
    | { schema: keyof DatabaseWithoutInternals },
  EnumName extends DefaultSchemaEnumNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"]
    : never = never,
> = DefaultSchemaEnumNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"][EnumName]
  : DefaultSchemaEnumNameOrOptions extends keyof DefaultSchema["Enums"]
    ? DefaultSchema["Enums"][DefaultSchemaEnumNameOrOptions]
    : never

export type CompositeTypes<
  PublicCompositeTypeNameOrOptions extends
    | keyof DefaultSchema["CompositeTypes"]
    | { schema: keyof DatabaseWithoutInternals },
  CompositeTypeName extends PublicCompositeTypeNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"]
    : never = never,
> = PublicCompositeTypeNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"][CompositeTypeName]
  : PublicCompositeTypeNameOrOptions extends keyof DefaultSchema["CompositeTypes"]
    ? DefaultSchema["CompositeTypes"][PublicCompositeTypeNameOrOptions]
    : never

export const Constants = {
  public: {
    Enums: {},
  },
} as const

