import { useParams } from 'react-router';
import { FunctionsScreen } from '@/features/functions/components/functions-screen';
import { SecretsScreen } from '@/features/functions/components/secrets-screen';

export function FunctionsRoute() {
  const { slug } = useParams();
  return <FunctionsScreen slug={slug} />;
}

export function FunctionSecretsRoute() {
  return <SecretsScreen />;
}
