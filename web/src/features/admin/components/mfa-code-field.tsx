/** The six-digit authenticator code field, shared by TOTP enrolment and the sign-in challenge. */
import { useState } from 'react';
import { TextField } from '@/components/ui/field';
import { mfaCodeSchema } from '../schemas/mfa-schema';

/** The typed code, its error, and `check()` that returns the clean code or shows the error. */
export function useMfaCode() {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();
  const check = (): string | undefined => {
    const r = mfaCodeSchema.safeParse(code);
    setError(r.success ? undefined : r.error.issues[0]?.message);
    return r.success ? r.data : undefined;
  };
  return { code, setCode, error, check };
}

export function MfaCodeField({ state, autoFocus }: { state: ReturnType<typeof useMfaCode>; autoFocus?: boolean }) {
  return (
    <TextField
      label="Code de vérification"
      name="code"
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={7}
      value={state.code}
      onChange={(e) => state.setCode(e.target.value)}
      error={state.error}
      hint="6 chiffres, renouvelés toutes les 30 secondes"
      required
      autoFocus={autoFocus}
    />
  );
}
