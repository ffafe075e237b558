return await tools.echo(1);
