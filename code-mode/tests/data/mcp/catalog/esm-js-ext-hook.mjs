// Node module resolve hook, used only to start @heroku/mcp-server 1.2.8:
// its dist/ imports '@modelcontextprotocol/sdk/server/mcp' without the '.js'
// that the SDK's export map needs, so plain node cannot load it. On
// ERR_MODULE_NOT_FOUND, retry the same specifier with '.js' appended.
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (e) {
    if (e.code !== 'ERR_MODULE_NOT_FOUND' || specifier.endsWith('.js')) throw e;
    return next(specifier + '.js', context);
  }
}
