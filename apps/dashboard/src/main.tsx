import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { render } from 'preact';
import { App } from './components/App.js';
import { readBoot } from './boot.js';
import { applyTheme } from './theme.js';

const boot = readBoot(document);
applyTheme(boot);
const root = document.getElementById('app');
if (root) render(<App boot={boot} />, root);
