import { runInterop, formatInteropConsole } from './conformance/crypto/interop/run.ts';
const r = await runInterop('x'); console.log(formatInteropConsole(r)); console.log((r.durationMs/1000).toFixed(2));
