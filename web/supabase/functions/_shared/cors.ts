// The CORS headers of Supabase's Edge Functions guide (`_shared/cors.ts`): every function of the
// site answers its browser calls with them, and its `OPTIONS` preflight with them alone.
// `Content-Disposition` is exposed so a page on another origin can read a download's file name.
export const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'authorization, x-client-info, apikey, content-type',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Expose-Headers': 'content-disposition',
};
