'use client';
import 'attention-calc';

export default function Calc(props) {
  return <attention-calc {...props} />;
}
