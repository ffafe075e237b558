// Preload (node --require) used only for @wonderwhy-er/desktop-commander: its
// start_process description embeds the host's container status, mount points
// and hostname when /.dockerenv exists. Hide that file so the capture holds
// the server's plain-Linux text instead of the capturing machine's layout.
const fs = require('fs');
const existsSync = fs.existsSync;
fs.existsSync = p => (p === '/.dockerenv' ? false : existsSync(p));
