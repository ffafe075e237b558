let sum = 0;
for (let i = 0; i < 1000; i++) sum += await Promise.resolve(i);
return sum;
