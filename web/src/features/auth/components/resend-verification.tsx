import { toast } from 'sonner';
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
          toast.error("Veuillez d'abord saisir votre adresse email");
          return;
        }
        resend.mutate(email, {
          onSuccess: () => toast.success('Un nouvel email de vérification a été envoyé. Vérifiez votre boîte de réception et vos spams.'),
          onError: (e) => toast.error(e.message),
        });
      }}
    >
      {resend.isPending ? 'Envoi…' : "Renvoyer l'email de vérification"}
    </button>
  );
}
