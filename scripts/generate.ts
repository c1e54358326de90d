/** Entry point of `npm run generate`. */
import { generateAll } from './generate/index.ts';

const elapsed = await generateAll();
console.log(`generated/ and mocks/ written from specs/ in ${(elapsed / 1000).toFixed(2)} s`);
