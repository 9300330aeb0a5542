import { describe, expect, it } from 'vitest';
import { CHUNK, chunkPlan, tusMetadata } from './tus';

describe('the TUS client', () => {
  it('encodes metadata as TUS wants it, in UTF-8', () => {
    expect(tusMetadata({ bucketName: 'media', objectName: 'été/a.png' })).toBe(
      `bucketName ${btoa('media')},objectName ${Buffer.from('été/a.png').toString('base64')}`,
    );
  });

  it('plans chunks from an offset', () => {
    expect(chunkPlan(0)).toEqual([]);
    expect(chunkPlan(10, 0, 4)).toEqual([
      [0, 4],
      [4, 8],
      [8, 10],
    ]);
    expect(chunkPlan(10, 6, 4)).toEqual([
      [6, 10],
    ]);
    expect(chunkPlan(50 * 1024 * 1024)).toHaveLength(Math.ceil((50 * 1024 * 1024) / CHUNK));
  });
});
