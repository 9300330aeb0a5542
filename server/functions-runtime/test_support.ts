/** What the runtime's Deno tests share (no dependency: the tests run offline with the pinned Deno). */

/** Equal as JSON, else an error naming `what`, the expected and the actual value. */
export function assertEquals<T>(actual: T, expected: T, what = ""): void {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== e) throw new Error(`${what} expected ${e}, got ${a}`);
}

/** Write function `name`'s `index.ts` under `dir`; its entry file's `file://` URL. */
export async function writeFunction(dir: string, name: string, source: string): Promise<string> {
  await Deno.mkdir(`${dir}/${name}`, { recursive: true });
  const path = `${dir}/${name}/index.ts`;
  await Deno.writeTextFile(path, source);
  return new URL(`file://${path}`).href;
}
