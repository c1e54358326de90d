// The HTML report's style sheet, inlined in the page (the file opens from disk with no asset beside it). Light
// and dark colours follow prefers-color-scheme; below 720 px the tables become one card per row, and long URLs,
// commands and JSON wrap inside their own box, so a 390 px screen never scrolls sideways.

/** Bar widths as classes `.w0` … `.w100`, so the page needs no style attribute (its CSP allows none). */
const widths = Array.from({ length: 101 }, (_, p) => `.w${p}{width:${p}%}`).join('');

export const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1b1f;--muted:#5a5d66;--line:#d5d8de;--box:#f4f5f7;
--pass:#176b33;--pass-bg:#e3f3e8;--fail:#b3261e;--fail-bg:#fdeceb;--skip:#7a5200;--skip-bg:#fdf3d9;
--link:#0b57d0;--focus:#0b57d0;--bar:#2e8b57}
@media (prefers-color-scheme:dark){:root{--bg:#141518;--fg:#e6e7ea;--muted:#a3a7b0;--line:#3a3d44;--box:#1d1f23;
--pass:#7bd896;--pass-bg:#173022;--fail:#ff948c;--fail-bg:#3b1b19;--skip:#f0c35a;--skip-bg:#33290f;
--link:#9ec1ff;--focus:#9ec1ff;--bar:#4fb477}}
*{box-sizing:border-box}
[hidden]{display:none!important}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
body{margin:0;overflow-wrap:break-word;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header,main{max-width:1240px;margin:0 auto;padding:0 16px}
main{padding-bottom:48px}
h1{font-size:1.5rem;margin:20px 0 8px}
h2{font-size:1.25rem;margin:36px 0 10px;padding-bottom:4px;border-bottom:2px solid var(--line)}
h3{font-size:1.05rem;margin:4px 0 6px;overflow-wrap:anywhere}
h4{font-size:.95rem;margin:10px 0 4px}h5{font-size:.85rem;margin:10px 0 2px;color:var(--muted)}
p{margin:6px 0}
a{color:var(--link)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code{overflow-wrap:anywhere}
pre{background:var(--box);border:1px solid var(--line);border-radius:6px;padding:8px 10px;margin:4px 0 8px;
white-space:pre-wrap;overflow-wrap:anywhere;max-height:28em;overflow:auto}
.muted,.source{color:var(--muted)}
.source{font-size:.85rem}
.verdict{font-size:1.1rem;padding:10px 14px;border-radius:6px;border-left:6px solid;margin:8px 0 12px}
.verdict.passed{background:var(--pass-bg);border-color:var(--pass)}
.verdict.failed{background:var(--fail-bg);border-color:var(--fail)}
.verdict.skipped{background:var(--skip-bg);border-color:var(--skip)}
.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:8px;margin:0 0 12px}
.tile{border:1px solid var(--line);border-radius:6px;padding:6px 12px}
.tile dt{font-size:.8rem;color:var(--muted)}
.tile dd{margin:0;font-size:1.35rem;font-weight:650}
.tile.passed dd{color:var(--pass)}.tile.failed dd{color:var(--fail)}.tile.skipped dd{color:var(--skip)}
.tile .muted{font-size:.85rem;font-weight:400}
.tile .note{display:block;font-size:.8rem;font-weight:400;color:var(--muted)}
.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:4px 16px;margin:0}
.facts dt{font-weight:600}.facts dd{margin:0;min-width:0}
ul.plain{list-style:none;padding:0;margin:2px 0}
nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:6px 18px;padding:0;margin:14px 0 0}
.n{white-space:nowrap}.nb{white-space:nowrap}
.n.passed{color:var(--pass)}.n.failed{color:var(--fail)}.n.skipped{color:var(--skip)}
.badge{display:inline-block;padding:0 8px;border-radius:999px;font-size:.78rem;font-weight:650;border:1px solid;
line-height:1.6;vertical-align:1px;white-space:nowrap}
.badge.passed,.badge.ok{color:var(--pass);background:var(--pass-bg)}
.badge.failed{color:var(--fail);background:var(--fail-bg)}
.badge.skipped{color:var(--skip);background:var(--skip-bg)}
.sev{font-size:.75rem;color:var(--muted);border:1px solid var(--line);border-radius:4px;padding:0 4px}
.failure{border:1px solid var(--line);border-left:6px solid var(--fail);border-radius:6px;padding:10px 14px;margin:12px 0}
.failure .message,.alert li{font-weight:550}
.case{border-top:1px dashed var(--line);margin-top:10px;padding-top:6px}
.pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,280px),1fr));gap:0 12px}
details{margin:6px 0}
summary{cursor:pointer;font-weight:600;color:var(--link);width:max-content;max-width:100%}
.label{font-size:.85rem;font-weight:600;margin:10px 0 2px}
.cmd{display:flex;gap:8px;align-items:flex-start;background:var(--box);border:1px solid var(--line);border-radius:6px;
padding:6px 8px}
.cmd code{flex:1;min-width:0;padding-top:2px}
button{font:inherit;font-size:.85rem;padding:2px 10px;border:1px solid var(--muted);border-radius:4px;background:var(--bg);
color:var(--fg);cursor:pointer}
.copy{display:none}.js .copy{display:inline-block}
table{border-collapse:collapse;width:100%;margin:8px 0}
th,td{text-align:left;vertical-align:top;padding:6px 8px;border-bottom:1px solid var(--line)}
thead th{font-size:.85rem;color:var(--muted);border-bottom:2px solid var(--line)}
td.num{white-space:nowrap}
tfoot th,tfoot td{border-top:2px solid var(--line);font-weight:600}
table.checks .c-surface,table.checks .c-origin{white-space:nowrap}
table.checks .c-why,table.checks .c-cases{overflow-wrap:anywhere}
.label-narrow{display:none}
.title{font-size:.9rem}
.c-why p{margin:0 0 2px}
.cov{min-width:9em}
.cov .num{display:block;white-space:nowrap}
.bar{display:block;height:8px;background:var(--line);border-radius:4px;overflow:hidden;margin-top:3px}
.bar>span{display:block;height:100%;background:var(--bar)}
${widths}
.filters{display:flex;flex-wrap:wrap;gap:10px 16px;align-items:flex-end;margin:8px 0}
.filters label{display:block;font-size:.85rem;font-weight:600}
.filters select,.filters input{font:inherit;padding:5px 8px;border:1px solid var(--muted);border-radius:4px;
background:var(--bg);color:var(--fg);width:15em;max-width:100%}
.filters button{padding:5px 12px}
.gates{list-style:none;padding:0}
.gates li{padding:4px 0}
.alert{border:2px solid var(--fail);background:var(--fail-bg);border-radius:6px;padding:10px 14px;margin:10px 0}
.alert h3{color:var(--fail)}
.alert ul{margin:4px 0;padding-left:20px}
.ok-note{color:var(--pass);font-weight:600}
@media (min-width:721px){table.checks .c-check code{white-space:nowrap}table.checks .c-check wbr{display:none}}
@media (max-width:720px){
header,main{padding:0 12px}
.facts{grid-template-columns:minmax(0,1fr)}.facts dt{margin-top:6px}
.filters>div{flex:1 1 100%}.filters select,.filters input{width:100%}
table.cards thead,table.checks thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
table.cards,table.cards tbody,table.cards tfoot,table.cards tr,table.checks,table.checks tbody{display:block}
table.cards tr,table.checks tr{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:4px 0}
table.cards th,table.cards td{display:block;border:0;padding:3px 10px 3px 8.2em;position:relative;min-width:0}
table.cards th::before,table.cards td::before{content:attr(data-label);position:absolute;left:10px;width:7.4em;
font-size:.8rem;font-weight:600;color:var(--muted);padding-top:1px}
table.cards td.cov{min-width:0}
table.checks tr{display:flex;flex-wrap:wrap;align-items:baseline;gap:2px 8px;padding:8px 10px}
table.checks td{display:block;border:0;padding:0;min-width:0}
table.checks .c-check,table.checks .c-cases,table.checks .c-why{order:1;flex:1 1 100%}
table.checks .c-time{margin-left:auto}
table.checks .c-origin::before{content:"· ";color:var(--muted)}
table.checks .c-cases.none{display:none}
.label-narrow{display:inline;color:var(--muted)}
}
`;
