/** Entry of the Electron main process (out/main/index.js). */
import { startApp } from './electron/app';

startApp();
