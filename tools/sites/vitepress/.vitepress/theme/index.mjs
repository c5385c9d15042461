// The default theme, and the element: the package is imported like any other module, and Vite
// copies the files the element loads.
import DefaultTheme from 'vitepress/theme';
import 'attention-calc';

export default DefaultTheme;
