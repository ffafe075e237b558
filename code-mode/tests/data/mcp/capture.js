// Usage: node capture.js OUT.json -- cmd args...
const { spawn } = require('child_process');
const fs = require('fs');
const out = process.argv[2];
const cmd = process.argv.slice(4);
const child = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, MEMORY_FILE_PATH: '/tmp/mcp-memory.jsonl' } });
let buf = '';
const timer = setTimeout(() => { console.error('timeout'); child.kill(); process.exit(1); }, 20000);
child.stderr.on('data', d => process.stderr.write('[stderr] ' + d));
child.stdout.on('data', d => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    if (msg.id === 1) {
      console.error('initialized:', JSON.stringify(msg.result.serverInfo));
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }) + '\n');
    } else if (msg.id === 2) {
      fs.writeFileSync(out, JSON.stringify(msg.result, null, 2) + '\n');
      console.error('wrote', out, msg.result.tools.length, 'tools');
      clearTimeout(timer);
      child.kill();
      process.exit(0);
    }
  }
});
child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'coderun-capture', version: '0.1.0' } } }) + '\n');
