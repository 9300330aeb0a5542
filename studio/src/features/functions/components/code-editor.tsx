import { useEffect, useRef } from 'react';
import { EditorView, basicSetup } from 'codemirror';
import { keymap } from '@codemirror/view';
import { Prec } from '@codemirror/state';
import { javascript } from '@codemirror/lang-javascript';

/** CodeMirror 6 with TypeScript; Ctrl/Cmd+S runs `onSave` (deploy). A new `docKey` loads `value` afresh. */
export function CodeEditor({ docKey, value, onChange, onSave, label }: { docKey: string; value: string; onChange: (v: string) => void; onSave: () => void; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const save = useRef(onSave);
  save.current = onSave;
  const change = useRef(onChange);
  change.current = onChange;

  useEffect(() => {
    if (!host.current) return;
    const v = new EditorView({
      doc: value,
      parent: host.current,
      extensions: [
        basicSetup,
        javascript({ typescript: true }),
        Prec.highest(keymap.of([{ key: 'Mod-s', preventDefault: true, run: () => (save.current(), true) }])),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) change.current(u.state.doc.toString());
        }),
        EditorView.contentAttributes.of({ 'aria-label': label }),
      ],
    });
    view.current = v;
    return () => v.destroy();
    // One editor per document: `docKey` names it, its text is then the editor's own.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [docKey]);

  return <div ref={host} className="h-full min-h-64 overflow-auto border border-slate-200 bg-white" data-testid="function-editor" />;
}
