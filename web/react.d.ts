// React 19's typing of the <attention-calc> tag in JSX/TSX: its attributes, `ref` (an
// AttentionCalcElement) and its events. React 19 passes a custom element's `on<event>` props as
// listeners of <event>, so the handlers are named after the events themselves:
//
//   import 'attention-calc';
//   import type {} from 'attention-calc/react';   // once, anywhere in the project
//
//   <attention-calc panels="weights" ref={ref} onattention-change={(e) => e.detail.result} />
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { AttentionCalcAttributes, AttentionCalcElement, AttentionCalcEventMap } from './attention-calc.js';

/** The element's own events, as React 19 props: 'on' + the event's name. */
export type AttentionCalcEventProps = {
  'onattention-change'?: (event: AttentionCalcEventMap['attention-change']) => void;
  'onattention-calc-resize'?: (event: AttentionCalcEventMap['attention-calc-resize']) => void;
  'onattention-calc-gpt2-text'?: (event: AttentionCalcEventMap['attention-calc-gpt2-text']) => void;
  /** The element's error event (a CustomEvent with detail.message). */
  onerror?: (event: AttentionCalcEventMap['error']) => void;
};

export type AttentionCalcProps = DetailedHTMLProps<HTMLAttributes<AttentionCalcElement>, AttentionCalcElement>
  & AttentionCalcAttributes & AttentionCalcEventProps;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'attention-calc': AttentionCalcProps;
    }
  }
}
