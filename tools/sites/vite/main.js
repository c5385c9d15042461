import 'attention-calc';
