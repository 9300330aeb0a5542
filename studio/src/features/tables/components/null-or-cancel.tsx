import { Button } from '@/components/ui/button';

/** The last buttons of a cell's editors: "Set NULL" when the column is nullable, then "Cancel". */
export function NullOrCancel({
  nullable,
  onNull,
  busy,
  onCancel,
}: {
  nullable: boolean;
  onNull: () => void;
  busy?: boolean;
  onCancel: () => void;
}) {
  return (
    <>
      {nullable && (
        <Button onClick={onNull} disabled={busy}>
          Set NULL
        </Button>
      )}
      <Button variant="ghost" onClick={onCancel}>
        Cancel
      </Button>
    </>
  );
}
