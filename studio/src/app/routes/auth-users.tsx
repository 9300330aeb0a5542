import { useParams } from 'react-router';
import { UsersList } from '@/features/auth-users/components/users-list';
import { UserPage } from '@/features/auth-users/components/user-page';

export default function AuthUsersRoute() {
  const { id } = useParams();
  return (
    <div className="grid h-full grid-cols-1 grid-rows-[minmax(0,1fr)_auto] lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)] lg:grid-rows-1">
      <div className={`min-h-0 ${id ? 'hidden lg:block' : ''}`}>
        <UsersList current={id} />
      </div>
      {id ? <UserPage key={id} id={id} /> : <p className="hidden p-4 text-sm text-slate-700 lg:block">Choose a user.</p>}
    </div>
  );
}
