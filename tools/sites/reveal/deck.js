import Reveal from './reveal/reveal.mjs';

Reveal.initialize({ hash: true });
// The widget grows when it starts (lazily, when its slide is shown): lay the slide out again.
document.addEventListener('attention-calc-resize', () => Reveal.layout());
