import { describeFileVersions } from '../support/file-versions-suite';

// records-service of the shared platform keeps its files in a folder; trash-s3.spec.ts runs
// the same suite on the loopback S3.
describeFileVersions('filesystem store');
