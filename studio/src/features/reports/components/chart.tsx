import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ChartData } from '../lib/series';

/** Line colours, dark enough to read on white. */
const COLORS = ['#047857', '#1d4ed8', '#b45309', '#7e22ce', '#be123c', '#0f766e', '#4d7c0f', '#334155'];

/**
 * A time chart drawn by uPlot (a canvas): one line per series, a legend with the values under
 * the cursor, redrawn at its container's width. `summary` says in words what it shows, for
 * screen readers and for whoever cannot see the canvas.
 */
export function TimeChart({ title, data, unit, summary, height = 180 }: { title: string; data: ChartData; unit: string; summary: string; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const labels = data.series.map((s) => s.label).join('|');
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 200),
      height,
      series: [{}, ...data.series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: false, value: (_u: uPlot, v: number | null) => (v === null ? '—' : `${v.toFixed(v < 10 ? 2 : 0)} ${unit}`) }))],
      axes: [
        { stroke: '#334155', grid: { stroke: '#e2e8f0' } },
        { stroke: '#334155', grid: { stroke: '#e2e8f0' }, size: 50 },
      ],
      scales: { y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      cursor: { drag: { x: false, y: false } },
    };
    const u = new uPlot(opts, [data.x, ...data.series.map((s) => s.values)] as uPlot.AlignedData, el);
    plot.current = u;
    const resize = new ResizeObserver(() => u.setSize({ width: Math.max(el.clientWidth, 200), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = null;
    };
    // A new set of series builds a new chart; new values alone are set below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [labels, height, unit]);
  useEffect(() => {
    plot.current?.setData([data.x, ...data.series.map((s) => s.values)] as uPlot.AlignedData);
  }, [data]);
  return (
    <figure className="min-w-0 rounded-md border border-slate-200 bg-white p-2">
      <figcaption className="mb-1 flex flex-wrap items-baseline gap-x-2">
        <span className="text-sm font-semibold">{title}</span>
        <span className="text-xs text-slate-700" data-testid="chart-summary">
          {summary}
        </span>
      </figcaption>
      <div ref={box} role="img" aria-label={`${title}: ${summary}`} className="text-[11px]" />
    </figure>
  );
}
