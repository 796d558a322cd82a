import { Module } from '@nestjs/common';
import { PlainHttpListener } from './plain-http.listener';

@Module({ providers: [PlainHttpListener], exports: [PlainHttpListener] })
export class PlainHttpModule {}
