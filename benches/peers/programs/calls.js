let sum = 0;
for (let i = 0; i < 1000; i++) sum += await tools.echo(i);
return sum;
