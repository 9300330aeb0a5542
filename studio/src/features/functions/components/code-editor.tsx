import { useEffect, useRef } from 'react';
import { EditorView, basicSetup } from 'codemirror';
import { keymap } from '@codemirror/view';
import { Prec } from '@codemirror/state';
import { javascript } from '@codemirror/lang-javascript';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';

/** Syntax colours dark enough for 4.5:1 on white (CodeMirror's defaults are not all). */
const readable = HighlightStyle.define([
  { tag: t.keyword, color: '#6b21a8' },
  { tag: [t.atom, t.bool, t.null], color: '#1e40af' },
  { tag: [t.number, t.literal], color: '#166534' },
  { tag: [t.string, t.special(t.string), t.regexp, t.escape], color: '#9a3412' },
  { tag: [t.definition(t.variableName), t.function(t.variableName)], color: '#1d4ed8' },
  { tag: [t.typeName, t.className, t.namespace], color: '#0f766e' },
  { tag: [t.propertyName, t.definition(t.propertyName)], color: '#1e3a8a' },
  { tag: [t.comment, t.lineComment, t.blockComment], color: '#57534e', fontStyle: 'italic' },
  { tag: [t.meta, t.annotation, t.processingInstruction], color: '#404040' },
  { tag: t.invalid, color: '#b91c1c' },
  { tag: [t.operator, t.punctuation, t.bracket], color: '#334155' },
]);

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
        syntaxHighlighting(readable),
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
