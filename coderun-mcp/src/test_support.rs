//! What the crate's unit tests share: a server and a client of rmcp's,
//! connected in memory.

use rmcp::model::ServerConfig;
use rmcp::service::RunningService;
use rmcp::{ClientHandler, RoleClient, RoleServer, ServerHandler, ServiceExt as _};

/// A server that answers the handshake and nothing else: coderun's side of
/// a client session, whose peer the code under test notifies.
pub(crate) struct Quiet;

impl ServerHandler for Quiet {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::default()
    }
}

/// A [`Quiet`] server and a client with `handler`, connected in memory and
/// past their handshake. Drop both when done.
pub(crate) async fn connected<H: ClientHandler>(
    handler: H,
) -> (
    RunningService<RoleServer, Quiet>,
    RunningService<RoleClient, H>,
) {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let client =
        tokio::spawn(async move { handler.serve(client_io).await.expect("the client starts") });
    let server = Quiet.serve(server_io).await.expect("the server starts");
    let client = client.await.expect("the client task");
    (server, client)
}
