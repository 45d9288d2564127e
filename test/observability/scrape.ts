/** Prometheus exposition text → the value of one sample whose labels include `labels`, or undefined. */
export function sampleValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  let total: number | undefined;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const brace = line.indexOf("{");
    const labelText = brace === name.length ? line.slice(brace + 1, line.lastIndexOf("}")) : "";
    const found = Object.fromEntries(
      [...labelText.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (!Object.entries(labels).every(([k, v]) => found[k] === v)) continue;
    total = (total ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}
