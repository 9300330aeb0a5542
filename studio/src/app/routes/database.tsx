import { RolesScreen } from '@/features/database/components/roles-screen';
import { ExtensionsScreen } from '@/features/database/components/extensions-screen';
import { MigrationsScreen } from '@/features/database/components/migrations-screen';
import { TableSizesScreen } from '@/features/database/components/table-sizes-screen';
import { IndexesScreen } from '@/features/database/components/indexes-screen';

export const RolesRoute = RolesScreen;
export const ExtensionsRoute = ExtensionsScreen;
export const MigrationsRoute = MigrationsScreen;
export const TableSizesRoute = TableSizesScreen;
export const IndexesRoute = IndexesScreen;
