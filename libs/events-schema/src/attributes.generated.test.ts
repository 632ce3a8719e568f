import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GENERATED_PATH, renderAttributesModule } from '../scripts/render-attributes.js';
import { renderRowEncodersModule, ROW_ENCODERS_GENERATED_PATH } from '../scripts/render-row-encoders.js';
import { renderTrackerFieldsModule, TRACKER_FIELDS_GENERATED_PATH } from '../scripts/render-tracker-fields.js';
import { emptySessionAttributes, SESSION_ATTRIBUTE_COLUMNS } from './attributes.js';
import { copySessionAttributes, pickSessionAttributes } from './attributes.generated.js';

const LIB = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('the generated attribute copiers', () => {
  it('are what the catalogue, the row columns and the tracker fields generate today (run `npm run generate:attributes` after changing them)', () => {
    expect(readFileSync(path.join(LIB, GENERATED_PATH), 'utf8')).toBe(renderAttributesModule());
    expect(readFileSync(path.join(LIB, TRACKER_FIELDS_GENERATED_PATH), 'utf8')).toBe(renderTrackerFieldsModule());
    expect(readFileSync(path.join(LIB, ROW_ENCODERS_GENERATED_PATH), 'utf8')).toBe(renderRowEncodersModule());
  });

  it('copy every attribute of the catalogue, in its order, and nothing else', () => {
    const source = { ...emptySessionAttributes(), extra: 'not an attribute' };
    SESSION_ATTRIBUTE_COLUMNS.forEach((name, i) => ((source as Record<string, unknown>)[name] = name === 'city' ? i : `v${i}`));
    const copied = copySessionAttributes({ site_id: 1 }, source);
    expect(Object.keys(copied)).toEqual(['site_id', ...SESSION_ATTRIBUTE_COLUMNS]);
    const picked = pickSessionAttributes(source);
    expect(Object.keys(picked)).toEqual([...SESSION_ATTRIBUTE_COLUMNS]);
    for (const name of SESSION_ATTRIBUTE_COLUMNS) {
      expect(copied[name]).toBe(source[name]);
      expect(picked[name]).toBe(source[name]);
    }
  });
});
