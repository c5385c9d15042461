// Defines <attention-calc> in every page. Docusaurus also runs client modules on the server
// while it renders the pages; there the import defines nothing.
import 'attention-calc';
