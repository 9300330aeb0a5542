import { useEffect, useRef } from 'react';
import { EditorView, basicSetup } from 'codemirror';
import { keymap } from '@codemirror/view';
import { Prec } from '@codemirror/state';
import { sql, PostgreSQL } from '@codemirror/lang-sql';
import { setDiagnostics } from '@codemirror/lint';

export type EditorHandle = { view: EditorView | null };

/**
 * CodeMirror 6 with PostgreSQL's dialect. Ctrl/Cmd+Enter runs (`onRun`); `mark` underlines the
 * character where Postgres placed an error and moves the cursor there. Ctrl/Cmd+Shift+Enter
 * explains (`onExplain`).
 */
export function SqlEditor({
  value,
  onChange,
  onRun,
  onExplain,
  mark,
}: {
  value: string;
  onChange: (v: string) => void;
  onRun: () => void;
  /** Ctrl/Cmd+Shift+Enter: the plan of the statement. */
  onExplain?: () => void;
  mark: { position: number; message: string } | null;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const run = useRef(onRun);
  run.current = onRun;
  const explain = useRef(onExplain);
  explain.current = onExplain;
  const change = useRef(onChange);
  change.current = onChange;

  useEffect(() => {
    if (!host.current) return;
    const v = new EditorView({
      doc: value,
      parent: host.current,
      extensions: [
        basicSetup,
        sql({ dialect: PostgreSQL }),
        Prec.highest(
          keymap.of([
            { key: 'Mod-Enter', run: () => (run.current(), true) },
            { key: 'Mod-Shift-Enter', run: () => (explain.current?.(), true) },
          ]),
        ),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) change.current(u.state.doc.toString());
        }),
        EditorView.contentAttributes.of({ 'aria-label': 'SQL' }),
      ],
    });
    view.current = v;
    return () => v.destroy();
    // The editor is created once; its text is then its own.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // A text given from outside (a run picked from the history) replaces the document.
  useEffect(() => {
    const v = view.current;
    if (v && value !== v.state.doc.toString()) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    if (!mark) {
      v.dispatch(setDiagnostics(v.state, []));
      return;
    }
    const from = Math.min(Math.max(mark.position - 1, 0), v.state.doc.length);
    const to = Math.min(from + 1, v.state.doc.length);
    v.dispatch(setDiagnostics(v.state, [{ from, to, severity: 'error', message: mark.message }]));
    v.dispatch({ selection: { anchor: from }, scrollIntoView: true });
  }, [mark]);

  return <div ref={host} className="h-full overflow-hidden border-b border-slate-200 bg-white" data-testid="sql-editor" />;
}
