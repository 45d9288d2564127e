import type { Tokenizer } from "../../core/models/embedding-provider.js";

/** Hand-written German Markdown: headings, paragraphs, a list, a code block, a table, abbreviations. */
export const GERMAN_MARKDOWN = `# Datenschutz im Unternehmen

Der Datenschutzbeauftragte berät die Geschäftsführung in allen Fragen der Verarbeitung personenbezogener Daten. Er wird z. B. bei der Einführung neuer Software frühzeitig beteiligt. Am 3. Oktober wurde die neue Richtlinie verabschiedet, die ab sofort für alle Abteilungen gilt.

## Pflichten der Mitarbeiter

Alle Beschäftigten müssen die folgenden Regeln einhalten:

- Passwörter werden niemals weitergegeben, auch nicht an Kolleginnen und Kollegen.
- Vertrauliche Unterlagen werden am Ende des Arbeitstages sicher verschlossen.
- Verdächtige E-Mails werden sofort an die IT-Sicherheit gemeldet.

## Technische Maßnahmen

Die Verschlüsselung erfolgt mit AES-256-GCM. Schlüssel werden in einem Hardware-Sicherheitsmodul gespeichert und jährlich rotiert.

\`\`\`bash
# Schlüssel rotieren
vault write -f transit/keys/kunden/rotate
vault read transit/keys/kunden
\`\`\`

| Maßnahme | Verantwortlich | Frist |
|---|---|---|
| Schulung | Personalabteilung | jährlich |
| Audit | Datenschutzbeauftragter | halbjährlich |

### Meldepflichten

Eine Datenpanne muss innerhalb von 72 Stunden der Aufsichtsbehörde gemeldet werden. Betroffene Personen werden informiert, wenn ein hohes Risiko für ihre Rechte und Freiheiten besteht. Die Dokumentation erfolgt im Verzeichnis der Verarbeitungstätigkeiten.
`;

/** Hand-written English Markdown with the same structure. */
export const ENGLISH_MARKDOWN = `# Release process

Every release starts from a green main branch. The release manager, e.g. Dr. Smith, tags the commit and writes the changelog. Version 2.0 was the first release made this way.

## Checklist

1. Run the full test suite, including the slow integration tests.
2. Update the changelog with every user-visible change.
3. Tag the release and push the tag to the remote repository.

## Rolling back

If a release breaks production, roll back first and investigate later. Rolling back is always cheaper than a hot fix under pressure!

\`\`\`sh
kubectl rollout undo deployment/memory-service
kubectl rollout status deployment/memory-service
\`\`\`

> Never fix forward on a Friday. Nobody will thank you on Monday.

### Who decides

The on-call engineer decides. They do not need permission to roll back, and nobody will question the decision afterwards.
`;

/** Grows a document to at least `chars` characters by repeating sections with distinct headings. */
export function largeDocument(base: string, chars: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const section = base.replace(/^# (.*)$/m, `# $1 (Teil ${i + 1})`);
    parts.push(section);
    length += section.length + 1;
  }
  return parts.join("\n");
}

/**
 * An additive test tokenizer: ceil(length / 3) tokens per whitespace-delimited word. Additivity makes the
 * overlap tolerance exact to reason about (see the property tests).
 */
export const wordTokenizer: Tokenizer = {
  countTokens(text: string): number {
    let tokens = 0;
    let run = 0;
    for (let i = 0; i <= text.length; i++) {
      const code = i < text.length ? text.charCodeAt(i) : 32;
      if (code === 32 || code === 10 || code === 9 || code === 13) {
        tokens += Math.ceil(run / 3);
        run = 0;
      } else {
        run++;
      }
    }
    return tokens;
  },
};
