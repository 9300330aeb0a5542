/** The tester's inputs, read from the text the operator typed. */
import type { Operation } from '../api/policies';

export type TesterForm = {
  kind: Operation['kind'];
  filterColumn: string;
  filterOp: string;
  filterValue: string;
  row: string;
  key: string;
};

function object(text: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${what} is not JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${what} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

/** The operation to send, or an Error naming the field to fix. */
export function operationOf(f: TesterForm): Operation {
  switch (f.kind) {
    case 'select': {
      if (!f.filterColumn) return { kind: 'select', filters: [] };
      const noValue = f.filterOp === 'is_null' || f.filterOp === 'not_null';
      return { kind: 'select', filters: [{ column: f.filterColumn, op: f.filterOp, value: noValue ? null : f.filterValue }] };
    }
    case 'insert':
      return { kind: 'insert', row: object(f.row, 'The row') };
    case 'update':
      return { kind: 'update', key: object(f.key, 'The key'), values: object(f.row, 'The values') };
    case 'delete':
      return { kind: 'delete', key: object(f.key, 'The key') };
  }
}
