/** The six-digit authenticator code field, shared by TOTP enrolment and the sign-in challenge. */
import { Field, useZodForm } from '@/components/ui/form';
import { mfaCodeFormSchema } from '../schemas/mfa-schema';

/** The form of the code: its error shows on submit; the handler gets the code without spaces. */
export function useMfaCodeForm() {
  return useZodForm(mfaCodeFormSchema, { mode: 'onSubmit', reValidateMode: 'onSubmit', defaultValues: { code: '' } });
}

/** The code's field, inside the `Form` of `useMfaCodeForm()`. */
export function MfaCodeField({ autoFocus }: { autoFocus?: boolean }) {
  return (
    <Field
      name="code"
      label="Code de vérification"
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={7}
      hint="6 chiffres, renouvelés toutes les 30 secondes"
      required
      autoFocus={autoFocus}
    />
  );
}
