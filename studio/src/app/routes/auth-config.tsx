import { AuthSettingsScreen } from '@/features/auth-config/components/settings-screen';
import { TemplatesScreen } from '@/features/auth-config/components/templates-screen';
import { SigningKeysScreen } from '@/features/auth-config/components/signing-keys-screen';
import { AccountScreen } from '@/features/auth-config/components/operator-totp';

export const AuthSettingsRoute = () => <AuthSettingsScreen />;
export const TemplatesRoute = () => <TemplatesScreen />;
export const SigningKeysRoute = () => <SigningKeysScreen />;
export const AccountRoute = () => <AccountScreen />;
