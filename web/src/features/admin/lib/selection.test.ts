import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useSelection } from './selection';

describe('useSelection', () => {
  it('ticks and unticks one row', () => {
    const { result } = renderHook(() => useSelection());
    act(() => result.current.toggle('a'));
    expect([...result.current.selected]).toEqual(['a']);
    act(() => result.current.toggle('a'));
    expect(result.current.selected.size).toBe(0);
  });

  it('« Tout sélectionner » ticks every listed row, then unticks all once they all are', () => {
    const { result } = renderHook(() => useSelection());
    expect(result.current.allOf([])).toBe(false);
    act(() => result.current.toggle('a'));
    expect(result.current.allOf(['a', 'b'])).toBe(false);
    act(() => result.current.toggleAll(['a', 'b']));
    expect([...result.current.selected].sort()).toEqual(['a', 'b']);
    expect(result.current.allOf(['a', 'b'])).toBe(true);
    act(() => result.current.toggleAll(['a', 'b']));
    expect(result.current.selected.size).toBe(0);
  });

  it('clear empties the selection after a bulk action', () => {
    const { result } = renderHook(() => useSelection());
    act(() => result.current.toggleAll(['a', 'b', 'c']));
    act(() => result.current.clear());
    expect(result.current.selected.size).toBe(0);
  });
});
