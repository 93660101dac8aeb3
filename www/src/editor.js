// The manifest editor: CodeMirror 6 with YAML highlighting, line numbers, undo, search, and the
// problems of the last analysis as lint markers (an underline at the field, a marker in the
// gutter, the message on hover). Tab is left to move focus, so the page stays keyboard usable.
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { lintGutter, lintKeymap, setDiagnostics } from "@codemirror/lint";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { EditorState } from "@codemirror/state";
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from "@codemirror/view";
import { tags } from "@lezer/highlight";

// Colours come from the page's CSS variables, so the light and dark themes apply here too.
const highlight = HighlightStyle.define([
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: "var(--code-key)" },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--code-string)" },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: "var(--code-number)" },
  { tag: [tags.comment, tags.lineComment], color: "var(--muted)", fontStyle: "italic" },
  { tag: [tags.meta, tags.punctuation, tags.separator, tags.brace, tags.squareBracket], color: "var(--code-punct)" },
  { tag: [tags.keyword, tags.typeName, tags.labelName], color: "var(--code-keyword)" },
]);

const theme = EditorView.theme({
  "&": { color: "var(--fg)", backgroundColor: "var(--code-bg)", height: "100%" },
  ".cm-content": { caretColor: "var(--fg)", fontFamily: "var(--mono)" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.45" },
  ".cm-gutters": { backgroundColor: "var(--panel)", color: "var(--muted)", borderRight: "1px solid var(--border)" },
  ".cm-activeLine": { backgroundColor: "var(--active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--active-line)" },
  "&.cm-focused .cm-cursor": { borderLeftColor: "var(--fg)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "var(--selection)" },
  ".cm-tooltip": { backgroundColor: "var(--panel)", color: "var(--fg)", border: "1px solid var(--border)" },
});

/**
 * Creates the editor in `parent`. `onChange(view)` runs after every change of the text; `onDrop`
 * gets a dropped file. Returns the view and `show(diagnostics)`, which sets the markers.
 */
export function createEditor(parent, { label, onChange, onDrop }) {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: "",
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        yaml(),
        syntaxHighlighting(highlight),
        lintGutter(),
        theme,
        EditorState.tabSize.of(2),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ "aria-label": label }),
        keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, ...lintKeymap]),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) {
            onChange(update.view);
          }
        }),
        EditorView.domEventHandlers({
          dragover(event) {
            if (event.dataTransfer?.types.includes("Files")) {
              event.preventDefault();
              return true;
            }
            return false;
          },
          drop(event) {
            const file = event.dataTransfer?.files?.[0];
            if (!file) {
              return false;
            }
            event.preventDefault();
            onDrop(file);
            return true;
          },
        }),
      ],
    }),
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, selection: { anchor: 0 }, scrollIntoView: true });
    },
    /** Shows `problems` (with `from`, `to`, `severity`, `message`) as lint markers. */
    show(problems) {
      const length = view.state.doc.length;
      const diagnostics = problems
        .filter((p) => p.from !== undefined && p.from <= length)
        .map((p) => ({
          from: p.from,
          to: Math.min(Math.max(p.to, p.from), length),
          severity: p.severity,
          source: p.path || "syntax",
          message: p.message,
        }));
      view.dispatch(setDiagnostics(view.state, diagnostics));
    },
    /** Moves the cursor to `offset`, scrolls it into view and focuses the editor. */
    reveal(from, to = from) {
      view.dispatch({ selection: { anchor: from, head: to }, scrollIntoView: true });
      view.focus();
    },
  };
}
