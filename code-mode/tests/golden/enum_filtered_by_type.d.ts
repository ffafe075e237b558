type T = 1 | 4 | 5.0;
export {};
