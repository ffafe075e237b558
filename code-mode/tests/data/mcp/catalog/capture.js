// Capture an MCP server's tools/list result over stdio.
// Usage: node capture.js OUT.json [--env KEY=VALUE ...] -- cmd args...
// Sends initialize, notifications/initialized, then tools/list (following
// nextCursor until the last page) and writes {"tools": [...all pages]}
// pretty-printed with 2-space indentation and a trailing newline.
// The server runs in its own process group, and the whole group is killed at
// the end, so helpers it spawned (e.g. a CLI started through npx) go too.
const { spawn } = require('child_process');
const fs = require('fs');
const args = process.argv.slice(2);
const out = args.shift();
const env = { ...process.env };
while (args.length && args[0] !== '--') {
  const flag = args.shift();
  if (flag !== '--env') throw new Error('unknown option ' + flag);
  const kv = args.shift(); const eq = kv.indexOf('=');
  env[kv.slice(0, eq)] = kv.slice(eq + 1);
}
const cmd = args.slice(1); // drop the '--'
const child = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'pipe'], env, detached: true });
const stop = code => { try { process.kill(-child.pid, 'SIGKILL'); } catch {} process.exit(code); };
const send = msg => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');
const timer = setTimeout(() => { console.error('timeout'); stop(1); }, 60000);
child.on('exit', code => { console.error('server exited with', code); process.exit(1); });
child.stderr.on('data', d => process.stderr.write('[stderr] ' + d));
let buf = '', result = null, nextId = 2;
const listTools = cursor => send({ id: nextId++, method: 'tools/list', params: cursor ? { cursor } : {} });
child.stdout.on('data', d => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    let msg;
    try { msg = JSON.parse(line); } catch { console.error('[non-JSON stdout] ' + line); continue; }
    if (msg.id === undefined || msg.method) continue; // notifications / server requests
    if (msg.error) { console.error('error:', JSON.stringify(msg.error)); stop(1); }
    if (msg.id === 1) {
      console.error('initialized:', JSON.stringify(msg.result.serverInfo));
      send({ method: 'notifications/initialized' });
      listTools();
    } else {
      // First page is kept as-is; later pages only add their tools.
      if (!result) result = msg.result; else result.tools.push(...msg.result.tools);
      if (msg.result.nextCursor) { listTools(msg.result.nextCursor); continue; }
      delete result.nextCursor;
      fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
      console.error('wrote', out, result.tools.length, 'tools');
      child.removeAllListeners('exit');
      stop(0);
    }
  }
});
send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'coderun-capture', version: '0.1.0' } } });
