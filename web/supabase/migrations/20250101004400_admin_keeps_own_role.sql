-- an administrator cannot change their own role from a browser (nor so lock the back office out
-- of its last administrator by a slip in the user dialog); another administrator can. the rest
-- of protect_profile (v31) is unchanged.

create or replace function public.protect_profile() returns trigger
language plpgsql
as $$
begin
  if current_user in ('anon', 'authenticated') then
    if not public.is_admin() then
      if new.role is distinct from old.role
         or new.email is distinct from old.email
         or new.user_id is distinct from old.user_id
         or new.username is distinct from old.username
         or new.id is distinct from old.id
         or new.created_at is distinct from old.created_at then
        raise exception 'Seuls le nom et le téléphone peuvent être modifiés'
          using errcode = '42501', hint = 'role, email and user_id are changed by an administrator';
      end if;
    elsif old.user_id = auth.uid() and new.role is distinct from old.role then
      raise exception 'Vous ne pouvez pas modifier votre propre rôle' using errcode = '22023';
    end if;
  end if;
  new.updated_at := now();
  return new;
end
$$;
