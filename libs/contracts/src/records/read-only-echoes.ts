import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';

/**
 * Read-only fields clients echo back from earlier responses (contract samples send
 * them, often as null). They are accepted and ignored; nothing is mass-assigned.
 */
export class ReadOnlyEchoes {
  @ApiPropertyOptional({ description: 'Read-only; ignored.', nullable: true })
  @Allow()
  id?: unknown;

  @ApiPropertyOptional({ description: 'Read-only; ignored.', nullable: true })
  @Allow()
  createdAt?: unknown;

  @ApiPropertyOptional({ description: 'Read-only; ignored.', nullable: true })
  @Allow()
  updatedAt?: unknown;

  @ApiPropertyOptional({ description: 'Read-only; ignored.', nullable: true })
  @Allow()
  status?: unknown;

  @ApiPropertyOptional({ description: 'Read-only; ignored.', nullable: true })
  @Allow()
  lastModifiedBy?: unknown;
}
