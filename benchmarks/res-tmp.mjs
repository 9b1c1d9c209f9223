const t0 = performance.now();
await import(process.argv[2]);
console.log((performance.now() - t0).toFixed(2));
