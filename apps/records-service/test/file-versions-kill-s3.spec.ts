import { describeVersionsKill } from './file-versions-kill.suite';

describeVersionsKill('s3');
