import { describe, expect, it } from 'vitest';
import { splitContent } from './blog';

describe('splitContent', () => {
  it('splits headings and paragraphs', () => {
    expect(splitContent('Intro.\n\n## En ville\nUne berline.\nSobre.\n\n## Bon à savoir\nRemise.')).toEqual([
      { kind: 'paragraph', text: 'Intro.' },
      { kind: 'heading', text: 'En ville' },
      { kind: 'paragraph', text: 'Une berline. Sobre.' },
      { kind: 'heading', text: 'Bon à savoir' },
      { kind: 'paragraph', text: 'Remise.' },
    ]);
  });
});
