/** Short local names for the browser globals the tracker uses most (the minifier can shorten a local, never a global). */
export const doc = document;
export const loc = location;
