import { notify } from '@/lib/notify';
import { useResendVerification } from '../api/auth';

export function ResendVerification({ email }: { email: string }) {
  const resend = useResendVerification();
  return (
    <button
      type="button"
      className="font-semibold text-blue-900 underline disabled:opacity-60"
      disabled={resend.isPending}
      onClick={() => {
        if (!email) {
          notify.error("Veuillez d'abord saisir votre adresse email");
          return;
        }
        resend.mutate(email, {
          onSuccess: () => notify.success('Un nouvel email de vérification a été envoyé. Vérifiez votre boîte de réception et vos spams.'),
          onError: (e) => notify.error(e.message),
        });
      }}
    >
      {resend.isPending ? 'Envoi…' : "Renvoyer l'email de vérification"}
    </button>
  );
}
