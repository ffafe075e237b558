//! `coderun mcp` at catalog scale, with real servers from npm: the
//! published filesystem, memory and everything servers, next to the
//! captured tool lists of 23 more published servers (`catalog-server.mjs`).

use rmcp::model::ContentBlock;
use serde_json::{Value, json};

use super::{Session, Workspace, npm_servers, text};

/// The three published servers and the catalog, in one configuration.
fn catalog_config(workspace: &Workspace) -> Value {
    let mut config = workspace.npm_config();
    let servers = npm_servers();
    config["mcpServers"]["everything"] = json!({
        "command": "node",
        "args": [servers.join("server-everything/dist/index.js"), "stdio"]
    });
    config["mcpServers"]["catalog"] = json!({
        "command": "node",
        "args": [std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/catalog-server.mjs")]
    });
    config
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_hundreds_of_tools_the_description_fits_and_a_program_searches_then_calls() {
    let workspace = Workspace::new();
    std::fs::write(
        workspace.files().join("notes.txt"),
        "found and read in one run",
    )
    .expect("a file");
    let config = workspace.write_config(&catalog_config(&workspace));
    let session = Session::stdio(&["--config", config.to_str().expect("utf-8")]).await;
    let tools = session.tools().await;
    assert_eq!(tools.len(), 1, "mode code lists run_code alone");
    let description = tools[0].description.as_deref().unwrap_or_default();
    assert!(
        description.len() <= 16 * 1024,
        "{} bytes",
        description.len()
    );
    assert!(description.contains("tools.$search("), "{description}");
    let program = format!(
        "const [hit] = await tools.$search('read the complete contents of a file as text', {{ limit: 1 }});\n\
         const text = await tools[hit.name]({{ path: {} }});\n\
         return {{ name: hit.name, text }};",
        Value::from(workspace.files().join("notes.txt").display().to_string())
    );
    let result = session.run_code(&program).await;
    let answer = text(&result);
    assert_ne!(result.is_error, Some(true), "{answer}");
    assert!(answer.contains("name: 'filesystem_read"), "{answer}");
    assert!(answer.contains("found and read in one run"), "{answer}");
    // The catalog is large: well over two hundred tools behind run_code.
    let count = session
        .run_code(
            "return (await tools.$search('a', { limit: 50 })).length + Object.keys(tools).length",
        )
        .await;
    let total: usize = text(&count).trim().parse().expect("a number");
    assert!(total >= 250, "{total}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_image_reaches_the_client_as_an_image_block() {
    let workspace = Workspace::new();
    let mut config = workspace.npm_config();
    config["mcpServers"] = json!({"everything": {
        "command": "node",
        "args": [npm_servers().join("server-everything/dist/index.js"), "stdio"]
    }});
    let config = workspace.write_config(&config);
    let session = Session::stdio(&["--config", config.to_str().expect("utf-8")]).await;
    let program = "const blocks = await tools['everything_get-tiny-image']({});\n\
                   const image = blocks.find((b) => b.type === 'image');\n\
                   console.log(blocks.length, image.mimeType, typeof image.handle);\n\
                   return image;";
    let result = session.run_code(program).await;
    let answer = text(&result);
    assert_ne!(result.is_error, Some(true), "{answer}");
    assert!(answer.starts_with("3 image/png string"), "{answer}");
    let images: Vec<_> = result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Image(image) => Some(image),
            _ => None,
        })
        .collect();
    assert_eq!(images.len(), 1, "{:?}", result.content);
    assert_eq!(images[0].mime_type, "image/png");
    assert!(images[0].data.starts_with("iVBORw0KGgo"), "a PNG, base64");
    assert!(
        !answer.contains("iVBORw0KGgo"),
        "the bytes are not in the text"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mode_both_relists_output_schemas_annotations_and_titles() {
    let workspace = Workspace::new();
    let mut config = workspace.npm_config();
    config["mcpServers"] = json!({"everything": {
        "command": "node",
        "args": [npm_servers().join("server-everything/dist/index.js"), "stdio"]
    }});
    let config = workspace.write_config(&config);
    let session = Session::stdio(&[
        "--config",
        config.to_str().expect("utf-8"),
        "--mode",
        "both",
    ])
    .await;
    let tools = session.tools().await;
    let structured = tools
        .iter()
        .find(|tool| tool.name == "everything_get-structured-content")
        .expect("listed");
    assert!(structured.output_schema.is_some(), "{structured:?}");
    let echo = tools
        .iter()
        .find(|tool| tool.name == "everything_echo")
        .expect("listed");
    assert_eq!(
        echo.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );
}
