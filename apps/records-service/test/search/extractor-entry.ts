// The extractor process of the test suites (SEARCH_EXTRACTOR_SCRIPT): the service's main.js
// forks itself; in tests the TypeScript sources are run through @swc-node/register.
import { runExtractorProcess } from '../../src/capabilities/text-extraction/extractor.child';

runExtractorProcess();
