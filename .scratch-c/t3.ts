import { deriveIdentity } from '../src/client/wallet/identity.ts';
import { mnemonicToSeed } from '../src/client/wallet/keys.ts';
console.log(deriveIdentity(mnemonicToSeed('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about')).svcId);
