/**
 * The site's one form abstraction: react-hook-form with the zod resolver, and the fields bound to it.
 *
 * A form calls `useZodForm(schema, { defaultValues })`, renders `<Form form={form} onValid={…}>` and
 * puts `Field`, `NumberFormField`, `SelectFormField`, `TextAreaFormField` or `CheckboxField` inside, by field name. The
 * form holds the values, what was touched and the errors; no component keeps them in its own state.
 * By default (`mode: 'onTouched'`) a field's error shows once the field is left or the form is
 * submitted, then follows what is typed. This module must not know any feature's schema or text.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { type FormHTMLAttributes, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import {
  FormProvider,
  useForm,
  useFormContext,
  useFormState,
  type FieldErrors,
  type FieldValues,
  type RegisterOptions,
  type Resolver,
  type SubmitErrorHandler,
  type SubmitHandler,
  type UseFormProps,
  type UseFormReturn,
} from 'react-hook-form';
import type { z } from 'zod';
import { SelectField, TextAreaField, TextField } from './field';

type Schema = z.ZodType<FieldValues, FieldValues>;

/** A react-hook-form form validated by `schema`: the handler gets the schema's parsed output. */
export function useZodForm<S extends Schema>(schema: S, options: Omit<UseFormProps<z.input<S>, unknown, z.output<S>>, 'resolver'> = {}) {
  // zodResolver infers these types for a concrete schema; a generic one needs telling
  const resolver = zodResolver(schema) as unknown as Resolver<z.input<S>, unknown, z.output<S>>;
  return useForm<z.input<S>, unknown, z.output<S>>({ mode: 'onTouched', ...options, resolver });
}

type FormProps<In extends FieldValues, Out extends FieldValues> = Omit<FormHTMLAttributes<HTMLFormElement>, 'onSubmit' | 'onInvalid'> & {
  form: UseFormReturn<In, unknown, Out>;
  /** Called with the parsed values once every field is valid. */
  onValid: SubmitHandler<Out>;
  /** Called instead when a field is not (for a form that says so in one message). */
  onInvalid?: SubmitErrorHandler<In> | undefined;
  children: ReactNode;
};

/** A `<form noValidate>` that gives its fields the form and submits through the schema. */
export function Form<In extends FieldValues, Out extends FieldValues>({ form, onValid, onInvalid, children, ...props }: FormProps<In, Out>) {
  return (
    <FormProvider {...form}>
      <form noValidate {...props} onSubmit={form.handleSubmit(onValid, onInvalid)}>
        {children}
      </form>
    </FormProvider>
  );
}

/** The error message of `name` once there is one to show (the form's mode decides when). */
export function useFieldError(name: string): string | undefined {
  const { control, getFieldState } = useFormContext();
  const state = useFormState({ control, name });
  return getFieldState(name, state).error?.message;
}

/**
 * The first error of a failed submit, in the schema's order, with its field's dotted name
 * (`general.companyEmail`, `seasonal_rates.0.rate_multiplier`): for a form that says it once
 * (in a banner) or opens the part of the form that holds it.
 */
export function firstError(errors: FieldErrors, prefix = ''): { name: string; message: string } | undefined {
  for (const [key, value] of Object.entries(errors)) {
    if (!value || typeof value !== 'object') continue;
    const name = prefix ? `${prefix}.${key}` : key;
    if ('type' in value && typeof value.message === 'string') return { name, message: value.message };
    const inner = firstError(value as FieldErrors, name);
    if (inner) return inner;
  }
  return undefined;
}

interface Bound {
  name: string;
  label: string;
  hint?: string | undefined;
  required?: boolean | undefined;
  /** Other fields validated again when this one changes (a confirmation after its password). */
  deps?: string | string[] | undefined;
}

type InputProps = Bound &
  Omit<InputHTMLAttributes<HTMLInputElement>, 'name'> & {
    /** Shown where the error goes while the field has none (a value the field corrected, say). */
    notice?: string | null | undefined;
  };

/**
 * A text input bound to the form by name, with its label and its error. Its own `onChange` and
 * `onBlur` run first and may rewrite what was typed (upper case, a clamp) before the form reads it.
 */
export function Field(props: InputProps) {
  return <BoundInput {...props} options={{}} />;
}

/** A number input whose form value is a number: NaN when it is empty, for the schema to refuse. */
export function NumberFormField(props: Omit<InputProps, 'type'>) {
  return <BoundInput {...props} type="number" options={{ valueAsNumber: true }} />;
}

function BoundInput({ name, deps, onChange, onBlur, notice, options, ...props }: InputProps & { options: RegisterOptions }) {
  const { register } = useFormContext();
  const error = useFieldError(name);
  const bound = register(name, deps ? { ...options, deps } : options);
  return (
    <TextField
      {...props}
      {...bound}
      onChange={(e) => {
        onChange?.(e);
        return bound.onChange(e);
      }}
      onBlur={(e) => {
        onBlur?.(e);
        return bound.onBlur(e);
      }}
      error={error ?? (notice || undefined)}
    />
  );
}

export function SelectFormField({ name, deps, ...props }: Bound & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'name'>) {
  const { register } = useFormContext();
  const error = useFieldError(name);
  return <SelectField {...props} {...register(name, deps ? { deps } : {})} error={error} />;
}

export function TextAreaFormField({ name, deps, ...props }: Bound & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'name'>) {
  const { register } = useFormContext();
  const error = useFieldError(name);
  return <TextAreaField {...props} {...register(name, deps ? { deps } : {})} error={error} />;
}

/** A check box bound to a boolean field, its label beside it. */
export function CheckboxField({ name, label, className }: { name: string; label: ReactNode; className?: string }) {
  const { register } = useFormContext();
  return (
    <label className={className ?? 'inline-flex items-center gap-2'}>
      <input type="checkbox" {...register(name)} className="h-4 w-4 accent-blue-900" />
      {label}
    </label>
  );
}
