type T = [string, (number | null)?, (-1)?];
export {};
