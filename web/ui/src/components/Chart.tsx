// ECharts in React: one instance per element, resized with its box, options replaced (not
// merged) on change. Only the chart types and components used are registered, so the bundle
// stays small.
import { useEffect, useRef } from 'react';
import * as echarts from 'echarts/core';
import { LineChart, CustomChart } from 'echarts/charts';
import { GridComponent, TooltipComponent, LegendComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import type { EChartsCoreOption } from 'echarts/core';

echarts.use([LineChart, CustomChart, GridComponent, TooltipComponent, LegendComponent, CanvasRenderer]);

export { echarts };

export function Chart({ option, height = 280, onClick, testId }: { option: EChartsCoreOption; height?: number; onClick?: (p: unknown) => void; testId?: string }) {
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  useEffect(() => {
    if (!el.current) return;
    const c = echarts.init(el.current, undefined, { renderer: 'canvas' });
    chart.current = c;
    const ro = new ResizeObserver(() => c.resize());
    ro.observe(el.current);
    return () => {
      ro.disconnect();
      c.dispose();
      chart.current = null;
    };
  }, []);
  useEffect(() => {
    chart.current?.setOption(option, { notMerge: true, lazyUpdate: true });
  }, [option]);
  useEffect(() => {
    const c = chart.current;
    if (!c || !onClick) return;
    c.on('click', onClick);
    return () => {
      c.off('click', onClick);
    };
  }, [onClick]);
  return <div ref={el} className="chart" style={{ height }} data-testid={testId} />;
}

export { kFont } from '../model/chartTheme';
