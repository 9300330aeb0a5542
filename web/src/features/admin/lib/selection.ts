/** The set of rows ticked in a back-office list, for bulk actions. */
import { useState } from 'react';

export function useSelection() {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const toggle = (id: string) =>
    setSelected((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  /** Whether every id of `ids` is ticked (false for an empty list). */
  const allOf = (ids: string[]) => ids.length > 0 && ids.every((id) => selected.has(id));
  /** Tick all of `ids`, or untick everything when they were all ticked. */
  const toggleAll = (ids: string[]) => setSelected(allOf(ids) ? new Set() : new Set(ids));
  const clear = () => setSelected(new Set());
  return { selected, toggle, allOf, toggleAll, clear };
}
