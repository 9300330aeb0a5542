/**
 * What the back-office guard shows, from the session, the profile role and the authenticator
 * assurance level (supabase.auth.mfa.getAuthenticatorAssuranceLevel). An administrator who has
 * a verified factor but a session at aal1 gets the two-factor challenge: the database refuses
 * them every admin read and write until the session is aal2 (V45), so the pages would be empty.
 */
export type AalLevel = 'aal1' | 'aal2' | null;

export interface GuardInput {
  loading: boolean;
  signedIn: boolean;
  isAdmin: boolean;
  /** null while the level is being read (only asked of administrators). */
  aal: { currentLevel: AalLevel; nextLevel: AalLevel } | null;
}

export type GuardDecision = 'loading' | 'sign-in' | 'denied' | 'challenge' | 'pages';

export function guardDecision({ loading, signedIn, isAdmin, aal }: GuardInput): GuardDecision {
  if (loading) return 'loading';
  if (!signedIn) return 'sign-in';
  if (!isAdmin) return 'denied';
  if (!aal) return 'loading';
  if (aal.nextLevel === 'aal2' && aal.currentLevel !== 'aal2') return 'challenge';
  return 'pages';
}
