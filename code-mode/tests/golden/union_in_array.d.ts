type T = (string | number | (string | null)[])[];
export {};
